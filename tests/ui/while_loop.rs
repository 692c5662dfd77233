use ongpu::prelude::*;

fn main() {
    let mut x: Field<f32> = Field::zeros(8);
    let _ = on_gpu!({
        while x < 10.0 {
            x += 1.0;
        }
    });
}
