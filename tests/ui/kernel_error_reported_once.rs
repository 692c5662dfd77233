use ongpu::prelude::*;

#[ongpu::kernel]
fn scale(a: &[f32], out: &mut [f32], s: f32) {
    let i = thread_idx().x as usize;
    match i {
        _ => out[i] = a[i] * s,
    }
}

fn main() {
    let a: Field<f32, AoS> = Field::zeros(8);
    let mut out: Field<f32, AoS> = Field::zeros(8);
    let _ = scale::launch(LaunchShape::linear(1, 8), &a, &mut out, 2.0);
}
