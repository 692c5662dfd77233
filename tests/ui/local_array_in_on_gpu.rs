use ongpu::prelude::*;

fn main() -> ongpu::Result<()> {
    let mut x: Field<f32> = Field::zeros(8);
    on_gpu!({
        let parts = [1.0f32; 4];
        x = parts[0];
    })?;
    Ok(())
}
