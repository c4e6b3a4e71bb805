mod detach;
mod ending;
mod kill;
mod output;
mod support;
