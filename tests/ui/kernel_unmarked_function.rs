fn helper(v: f32) -> f32 {
    v * 2.0
}

#[ongpu::kernel]
fn doubled(x: &[f32], y: &mut [f32]) {
    let i = thread_idx().x as usize;
    y[i] = helper(x[i]);
}

fn main() {}
