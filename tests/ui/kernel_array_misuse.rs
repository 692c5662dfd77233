#[ongpu::kernel]
fn k(a: &[f32], c: &mut [f32]) {
    let copy = a;
    let t = shared!([[f32; 4]; 4]);
    t[0] = 1.0;
    let mut x = 0.0f32;
    atomic_add(&mut x, 1.0);
    let b = sync_threads();
    c[0] = x;
}

fn main() {}
