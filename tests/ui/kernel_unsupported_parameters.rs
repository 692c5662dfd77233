#[ongpu::kernel]
fn bytes(a: &[u8]) {}

#[ongpu::kernel]
fn vector(v: Vec<f32>) {}

#[ongpu::kernel]
fn reference(x: &f32) {}

#[ongpu::kernel]
fn returns(x: &[f32]) -> f32 {
    x[0]
}

#[ongpu::kernel]
fn generic<T>(x: &[T]) {}

fn main() {}
