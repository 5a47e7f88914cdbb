// Each key of `include_model!` refuses a wrong value at the value, an unknown or repeated
// key at the key; what the model refuses of a key's value (a pin, a state, a cell name) at
// that value, and what it refuses of itself at the path.
mod unknown {
    cellc_macros::include_model!("../../../../examples/gru/model.xml", allow_outside_crate, wieght_type = "f16");
}
mod bad_choice {
    cellc_macros::include_model!("../../../../examples/gru/model.xml", allow_outside_crate, weight_type = "f8");
}
mod c {
    cellc_macros::include_model!("../../../../examples/gru/model.xml", allow_outside_crate, lang = "c");
}
mod twice {
    cellc_macros::include_model!("../../../../examples/gru/model.xml", allow_outside_crate, name = "A", name = "B");
}
mod list {
    cellc_macros::include_model!("../../../../examples/gru/model.xml", allow_outside_crate, strategy = ["tiled"]);
}
mod pin {
    cellc_macros::include_model!("../../../../examples/gru/model.xml", allow_outside_crate, input = "x=[1,y]");
}
mod switch {
    cellc_macros::include_model!("../../../../examples/gru/model.xml", allow_outside_crate, fast_activations = "yes");
}
mod threads {
    cellc_macros::include_model!("../../../../examples/gru/model.xml", allow_outside_crate, threads = 0);
}
mod state {
    cellc_macros::include_model!("../../../../examples/gru/model.xml", allow_outside_crate, state = "h=nope");
}
mod cut {
    cellc_macros::include_model!("../../../../examples/gru/model.xml", allow_outside_crate, outputs = "a,,b");
}
mod rename {
    cellc_macros::include_model!("../../../../examples/gru/model.xml", allow_outside_crate, cell_name = "gru=9lives");
}
mod no_such_cell {
    cellc_macros::include_model!("../../../../examples/gru/model.xml", allow_outside_crate, cell_name = "lstm3=Encoder");
}
mod value {
    cellc_macros::include_model!("../../../../examples/gru/model.xml", allow_outside_crate, simd = build);
}
mod tables {
    cellc_macros::include_model!("../../../../examples/gru/model.xml", allow_outside_crate, weight_tables = "binary");
}
mod pin_name {
    // A pin of a Parameter the model does not have: at the pin, not at the path.
    cellc_macros::include_model!("../../../../examples/gru/model.xml", allow_outside_crate, input = "x=[1, 16]");
}
mod dynamic {
    // The advice to pin a dimension is written as the macro takes it.
    cellc_macros::include_model!("../../../../tests/models/pt_gru_dynamic_h0/model.xml", allow_outside_crate);
}

fn main() {}
