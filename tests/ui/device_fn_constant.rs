use ongpu::prelude::*;

const KSCALE: f32 = 2.0;

#[ongpu::device]
fn scaled(v: f32) -> f32 {
    v * KSCALE
}

fn main() {
    let mut x: Field<f32> = Field::zeros(8);
    let _ = on_gpu!({
        x = scaled(x);
    });
}
