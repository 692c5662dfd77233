use ongpu::prelude::*;

fn main() {
    let mut x: Field<f32> = Field::zeros(8);
    let _ = on_gpu!({
        assert!(x > 0.0);
        x = 1.0;
    });
}
