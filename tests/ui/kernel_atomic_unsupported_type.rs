#[ongpu::kernel]
fn k(x: &mut [f32]) {
    atomic_min(&mut x[0], 1.0);
}

fn main() {}
