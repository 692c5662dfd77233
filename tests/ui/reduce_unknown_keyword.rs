use ongpu::prelude::*;

fn main() -> ongpu::Result<()> {
    let x: Field<f64> = Field::zeros(8);
    let p: f64 = on_gpu!(prod: { x })?;
    let _ = p;
    Ok(())
}
