mod anthropic;
mod openai;
mod select;
mod support;
