"""The lab: experiments built on the engine (data loading, simulations, evaluation). Framework-free; pandas allowed."""
