use ongpu::prelude::*;

fn main() {
    let _ = on_gpu!();
}
