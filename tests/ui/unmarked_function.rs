use ongpu::prelude::*;

fn helper(v: f32) -> f32 {
    v * 2.0
}

fn main() {
    let mut x: Field<f32> = Field::zeros(8);
    let _ = on_gpu!({
        x = helper(x);
    });
}
