use ongpu::prelude::*;

fn main() {
    let mut x: Field<f32> = Field::zeros(8);
    let Y: Field<f32> = Field::zeros(8);
    let _ = on_gpu!({
        x = Y;
    });
}
