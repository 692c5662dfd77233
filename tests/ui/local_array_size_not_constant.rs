const TM: usize = 8;

#[ongpu::kernel]
fn k(out: &mut [f32], n: usize) {
    let mut acc = [[0.0f32; TM]; n];
    acc[0][0] = 1.0;
    out[0] = acc[0][0];
}

#[ongpu::device]
fn sum_of(x: f32, width: usize) -> f32 {
    let parts = [x; width];
    parts[0]
}

fn main() {
    let mut pairs = [0.0f32; 2];
    pairs[0] = sum_of(1.0, 2);
    let _ = pairs;
}
