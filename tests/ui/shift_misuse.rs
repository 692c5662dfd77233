use ongpu::prelude::*;

fn main() {
    let lat = Lattice::new([4, 4, 4, 4]).unwrap();
    let n = lat.volume();
    let mut x: Field<f32> = Field::zeros(n);
    let y: Field<f32> = Field::zeros(n);
    let a = 2.0f32;
    // A field the call writes cannot be shifted in it.
    let _ = on_gpu!(lat, { x = x.shift(0, 1) + y; });
    // Only captured fields can be shifted.
    let _ = on_gpu!(lat, {
        let t = y * 2.0;
        x = t.shift(1, 1) + (y * a).shift(0, 1);
    });
    // Two arguments.
    let _ = on_gpu!(lat, { x = y.shift(1); });
    // No sites named, so no lattice.
    let _ = on_gpu!({ x = y.shift(0, 1); });
}
