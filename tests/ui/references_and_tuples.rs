use ongpu::prelude::*;

fn main() {
    let mut x: Field<f32> = Field::zeros(8);
    let _ = on_gpu!({
        let r = &x;
        let (a, b) = (1.0f32, 2.0f32);
        x = a + b;
    });
}
