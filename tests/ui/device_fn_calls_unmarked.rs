fn helper(v: f32) -> f32 {
    v * 2.0
}

#[ongpu::device]
fn twice_helper(v: f32) -> f32 {
    helper(v) + helper(v)
}

fn main() {}
