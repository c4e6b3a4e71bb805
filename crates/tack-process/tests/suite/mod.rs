mod adopted;
mod detach;
mod ending;
mod env;
mod escape;
mod kill;
mod output;
mod support;
