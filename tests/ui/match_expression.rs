use ongpu::prelude::*;

fn main() {
    let mut x: Field<i32> = Field::zeros(8);
    let _ = on_gpu!(|i| {
        x = match i {
            0 => 1,
            _ => 2,
        };
    });
}
