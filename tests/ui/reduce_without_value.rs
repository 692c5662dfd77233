use ongpu::prelude::*;

fn main() -> ongpu::Result<()> {
    let x: Field<f64> = Field::zeros(8);
    let s: f64 = on_gpu!(sum: 8, |i| {
        x * i as f64;
    })?;
    let _ = s;
    Ok(())
}
