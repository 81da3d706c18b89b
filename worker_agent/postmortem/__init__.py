"""Post-mortem: a job's Flight Recorder dumps (files torch wrote, or what torch.distributed.debug's
workers serve) opened in Ringside as a watched job, judged by the watch's own rules (`ringside open`)."""
