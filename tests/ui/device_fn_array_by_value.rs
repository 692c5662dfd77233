#[ongpu::device]
fn total(v: [f32; 4]) -> f32 {
    v[0] + v[1] + v[2] + v[3]
}

fn main() {}
