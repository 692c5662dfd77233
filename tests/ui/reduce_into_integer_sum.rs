use ongpu::prelude::*;

fn main() {
    let x: Field<i32> = Field::zeros(4);
    let mut s: DeviceScalar<i32> = DeviceScalar::zero();
    let _ = on_gpu!(sum -> s: { x });
}
