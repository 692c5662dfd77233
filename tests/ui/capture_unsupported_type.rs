use ongpu::prelude::*;

fn main() {
    let weights = vec![1.0f32, 2.0];
    let mut x: Field<f32> = Field::zeros(8);
    let _ = on_gpu!({
        x = weights;
    });
}
