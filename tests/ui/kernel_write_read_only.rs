#[ongpu::kernel]
fn k(a: &[f32], c: &mut [f32]) {
    a[0] = 1.0;
    atomic_add(&mut a[1], 1.0);
    c[0] = a[2];
}

fn main() {}
