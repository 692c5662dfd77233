use ongpu::prelude::*;

fn main() {
    let mut x: Field<f32> = Field::zeros(8);
    let _ = on_gpu!(8, 128, 2, { x = 1.0; });
}
