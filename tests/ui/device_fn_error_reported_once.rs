use ongpu::prelude::*;

#[ongpu::device]
fn halve(v: f32) -> f32 {
    match v {
        _ => v * 0.5,
    }
}

fn main() {
    let mut x: Field<f32> = Field::zeros(8);
    let _ = on_gpu!({
        x = halve(x);
    });
    let _ = halve(1.0);
}
