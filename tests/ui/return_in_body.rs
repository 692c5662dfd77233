use ongpu::prelude::*;

fn main() {
    let mut x: Field<f32> = Field::zeros(8);
    let _ = on_gpu!(|i| {
        if i == 0 {
            return;
        }
        x = 1.0;
    });
}
