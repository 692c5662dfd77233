use ongpu::prelude::*;

fn main() {
    let x: Field<f64> = Field::zeros(4);
    let mut s = DeviceScalar::zero();
    let _ = on_gpu!(sum -> s: { x * s });
}
