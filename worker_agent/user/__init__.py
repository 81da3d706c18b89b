"""Users' own algorithms: schedules from their files, MSCCL XML, and send/recv code that is
recorded as it runs and rebuilt into a schedule."""
