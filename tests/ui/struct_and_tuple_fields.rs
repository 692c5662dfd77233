use ongpu::prelude::*;

fn main() {
    let mut x: Field<f32> = Field::zeros(8);
    let m: Field<ColorMatrix<f32>> = Field::zeros(8);
    let _ = on_gpu!({
        x = m.trace().real + m.0;
    });
}
