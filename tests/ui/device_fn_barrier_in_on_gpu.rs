use ongpu::prelude::*;

#[ongpu::device]
fn after_barrier(x: f32) -> f32 {
    sync_threads();
    x
}

#[ongpu::device]
fn indirect(x: f32) -> f32 {
    after_barrier(x) * 2.0
}

fn main() {
    let x: Field<f32> = Field::zeros(4);
    let mut y: Field<f32> = Field::zeros(4);
    let _ = on_gpu!({
        y = indirect(x);
    });
}
