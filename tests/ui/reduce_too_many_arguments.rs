use ongpu::prelude::*;

fn main() -> ongpu::Result<()> {
    let x: Field<f32> = Field::zeros(8);
    let lo = on_gpu!(min: 8, 128, 2, { x })?;
    let _ = lo;
    Ok(())
}
