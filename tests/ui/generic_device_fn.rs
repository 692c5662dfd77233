use ongpu::Real;

#[ongpu::device]
fn twice<T: Copy>(v: T) -> T {
    v
}

#[ongpu::device]
fn two<T: Real, U: Real>(a: T, b: U) -> T {
    a
}

#[ongpu::device]
fn zero<T: Real>(n: u32) -> T {
    0.0
}

#[ongpu::device]
fn convert<T: Real>(x: T, n: u32) -> T {
    x * n as T
}

fn main() {}
