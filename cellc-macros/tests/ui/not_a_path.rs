mod net {
    cellc_macros::include_model!(42);
}

fn main() {}
