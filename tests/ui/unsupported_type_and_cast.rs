use ongpu::prelude::*;

fn main() {
    let mut x: Field<f32> = Field::zeros(8);
    let _ = on_gpu!({
        let v: Vec<f32> = Vec::new();
        x = x as char;
    });
}
