use ongpu::prelude::*;

fn main() {
    let lat = Lattice::new([4, 4, 4, 4]).unwrap();
    let mut x: Field<f32> = Field::zeros(lat.volume());
    let y: Field<f32> = Field::zeros(lat.volume());
    // A local has no neighbours: only captured fields can be shifted.
    let _ = on_gpu!(lat, {
        let t = y * 2.0;
        x = t.shift(1, 1);
    });
}
