use ongpu::prelude::*;

fn main() -> ongpu::Result<()> {
    let m: Field<ColorMatrix<f32>> = Field::zeros(8);
    let s: f64 = on_gpu!(sum: { m.adj() * m })?;
    let z: Field<Complex<f64>> = Field::zeros(8);
    let hi = on_gpu!(max: |i| { z * i as f64 })?;
    let _ = (s, hi);
    Ok(())
}
