mod net {
    cellc_macros::include_model!("models/none.xml");
}

fn main() {}
