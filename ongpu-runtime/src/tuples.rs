//! One trait implementation per tuple arity, from one list of type names and indices.

/// Calls `$mac!(A 0, B 1, ...)` for every arity from 0 to 16: the capture and launch
/// argument traits are implemented for tuples of that many arguments.
macro_rules! for_each_tuple_arity {
    ($mac:ident) => {
        for_each_tuple_arity!(@ $mac []; A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9,
            K 10, L 11, M 12, N 13, O 14, P 15);
    };
    (@ $mac:ident [$($done:ident $di:tt),*]; ) => {
        $mac!($($done $di),*);
    };
    (@ $mac:ident [$($done:ident $di:tt),*]; $next:ident $ni:tt $(, $rest:ident $ri:tt)*) => {
        $mac!($($done $di),*);
        for_each_tuple_arity!(@ $mac [$($done $di,)* $next $ni]; $($rest $ri),*);
    };
}
