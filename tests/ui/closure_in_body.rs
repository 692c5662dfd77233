use ongpu::prelude::*;

fn main() {
    let mut x: Field<f32> = Field::zeros(8);
    let _ = on_gpu!({
        let double = |v: f32| v * 2.0;
        x = double(x);
    });
}
