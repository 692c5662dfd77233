#[ongpu::device]
fn twice<T: Copy>(v: T) -> T {
    v
}

fn main() {}
