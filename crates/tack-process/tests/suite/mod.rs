mod detach;
mod ending;
mod env;
mod kill;
mod output;
mod support;
