#[ongpu::kernel]
fn k(out: &mut [f32]) {
    if thread_idx().x == 0 {
        let s = shared!([f32; 4]);
        out[0] = s[0];
    }
    let t = shared!(f32);
}

fn main() {}
