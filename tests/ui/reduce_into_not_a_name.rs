use ongpu::prelude::*;

fn main() {
    let x: Field<f64> = Field::zeros(4);
    let _ = on_gpu!(sum -> 3: { x });
}
