use ongpu::prelude::*;

fn main() -> ongpu::Result<()> {
    let x: Field<f32> = Field::zeros(8);
    let s: f64 = on_gpu!(sum: |i| -> f64 { x as f64 })?;
    let _ = s;
    Ok(())
}
