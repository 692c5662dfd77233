use ongpu::prelude::*;

fn main() {
    let mut total = 0.0f32;
    let x: Field<f32> = Field::zeros(8);
    let _ = on_gpu!({
        total += x;
    });
}
