use ongpu::prelude::*;

fn main() {
    let n = 256usize;
    let mut x: Field<f32> = Field::zeros(n);
    let y: Field<f32> = Field::zeros(n);
    let a = 2.0f32;
    // A plain count has no neighbours.
    let _ = on_gpu!(n, { x = y.shift(0, 1); });
    // A value has no neighbours either.
    let lat = Lattice::new([4, 4, 4, 4]).unwrap();
    let _ = on_gpu!(lat, { x = a.shift(0, 1); });
}
