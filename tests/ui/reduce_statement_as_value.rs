use ongpu::prelude::*;

fn main() -> ongpu::Result<()> {
    let x: Field<f64> = Field::zeros(8);
    let mut y: Field<f64> = Field::zeros(8);
    let s: f64 = on_gpu!(sum: { y = x * 2.0 })?;
    let _ = s;
    Ok(())
}
