"""simbake-farm: bake many .blend files and variants of them as one Slurm job array.

    jobfile   the job file: parse, validate, expand into tasks (no Slurm, no bpy)
    farmdir   the farm folder: tasks.json, variant files, reports, logs, submissions
    slurm     sbatch / scontrol / sacct through subprocess
    summary   the state of every task (reports first, then Slurm) and the summary files
    submit    submit and resubmit: the sbatch command lines
    runtask   what one array task runs: scripts/simbake-bake with the task's settings

scripts/simbake-farm is the command; docs/farm.md the user documentation.
"""
