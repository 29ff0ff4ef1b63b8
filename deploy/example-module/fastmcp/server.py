"""The four tools of disk_usage.c, deploy.c, log_tail.c and reindex.c, as
a FastMCP (2.14) user writes them: the twins t/example-lines counts."""
# --- shared
import os
import shutil
from pathlib import Path
from typing import Annotated

from fastmcp import Context, FastMCP
from fastmcp.exceptions import ResourceError, ToolError
from fastmcp.server.dependencies import get_access_token
from pydantic import BaseModel, Field

mcp = FastMCP("ops")

# --- disk_usage
class DiskUsage(BaseModel):
    path: str = Field(description="The directory.")
    total: int = Field(description="Bytes in the file system.")
    used: int = Field(description="Bytes used.")
    free: int = Field(description="Bytes free.")
    percent: float = Field(description="Percent used.")


@mcp.tool(annotations={"readOnlyHint": True})
def disk_usage(path: Annotated[str, Field(description="A directory.")] = "/") -> DiskUsage:
    """How full the file system holding a directory is."""
    try:
        u = shutil.disk_usage(path)
    except OSError as e:
        raise ToolError(f"{path}: {e.strerror}")
    return DiskUsage(path=path, total=u.total, used=u.used, free=u.free,
                     percent=round(100 * u.used / u.total, 1))

# --- deploy
@mcp.tool
async def deploy(service: Annotated[str, Field(description="Its name.", min_length=1)],
                 version: Annotated[str, Field(description="The version, e.g. 1.4.2.", min_length=1)],
                 ctx: Context) -> str:
    """Deploys a version of a service, once you chose where and agreed; needs the role deployer."""
    role = (get_access_token().claims or {}).get("role")
    if role != "deployer":
        raise ToolError(f"Refused: this needs role deployer, and the caller's role is {role}")
    env = await ctx.elicit("Deploy to which environment?", ["staging", "production"])
    if env.action != "accept":
        return "Nothing was deployed."
    ok = await ctx.elicit(f"Deploy {service} {version} to {env.data}?", None)
    if ok.action != "accept":
        return "Nothing was deployed."
    queue = Path(os.environ["DEPLOY_QUEUE"])
    (queue / ctx.request_id).write_text(f"{service} {version} {env.data}\n")
    return f"Deploying {service} {version} to {env.data}."

# --- log_tail
@mcp.resource("log://{service}/tail", mime_type="text/plain")
def log_tail(service: str) -> str:
    """The last 20 lines of a service's log."""
    if ".." in service:
        raise ResourceError(f"Refused: '{service}' has '..'; a service is a name, not a path")
    return "".join((Path(os.environ["LOG_DIR"]) / f"{service}.log").open().readlines()[-20:])

# --- reindex
@mcp.tool(task=True)
async def reindex(shards: Annotated[int, Field(description="How many shards.", ge=1, le=64)] = 4,
                  ctx: Context = None) -> str:
    """Rebuilds the search index, shard by shard."""
    for i in range(1, shards + 1):  # the work of shard i goes here
        await ctx.report_progress(i, shards, f"Shard {i} of {shards}")
    return f"Reindexed {shards} shards."

# --- shared
if __name__ == "__main__":
    mcp.run(transport="http")
