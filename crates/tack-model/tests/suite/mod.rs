mod anthropic;
mod caching;
mod openai;
mod select;
mod support;
