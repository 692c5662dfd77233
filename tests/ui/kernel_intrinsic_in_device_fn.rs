#[ongpu::device]
fn lane() -> u32 {
    thread_idx().x % 32
}

fn main() {}
