#[ongpu::kernel]
fn k(out: &mut [f32], n: u32) {
    let s = shared!([f32; n]);
    s[0] = 1.0;
    out[0] = s[0];
}

fn main() {}
