use ongpu::prelude::*;
use ongpu::Real;

#[ongpu::device]
fn sum<T: Real>(a: &[T]) -> T {
    let mut s = 0.0;
    for i in 0..a.len() {
        s += a[i];
    }
    s
}

#[ongpu::device]
fn half<T: Real>(x: T) -> T {
    0.5 * x
}

#[ongpu::kernel]
fn sums(a: &[i32], out: &mut [i32]) {
    out[0] = sum(a);
}

fn main() {
    let x: Field<u32> = Field::zeros(4);
    let mut y: Field<u32> = Field::zeros(4);
    let _ = on_gpu!({
        y = half(x);
    });
    let z: Field<Complex<f32>> = Field::zeros(4);
    let mut w: Field<Complex<f32>> = Field::zeros(4);
    let _ = on_gpu!({
        w = half(z);
    });
}
