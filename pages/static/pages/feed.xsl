<?xml version="1.0" encoding="utf-8"?>
<!-- Shows an Atom feed of the tender feed as a readable page when it is opened in a browser.
     Feed readers ignore it. Words come in the feed's language (its xml:lang). -->
<xsl:stylesheet version="1.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform"
  xmlns:a="http://www.w3.org/2005/Atom" exclude-result-prefixes="a">
  <xsl:output method="html" encoding="utf-8" indent="yes"/>
  <xsl:variable name="lang" select="/a:feed/@xml:lang"/>
  <xsl:template match="/a:feed">
    <html lang="{$lang}">
      <head>
        <meta charset="utf-8"/>
        <meta name="viewport" content="width=device-width, initial-scale=1"/>
        <title><xsl:value-of select="a:title"/></title>
        <link rel="stylesheet" href="/static/pages/site.css"/>
      </head>
      <body>
        <main class="wrap" id="feed-page">
          <h1><xsl:value-of select="a:title"/></h1>
          <p class="notice" id="feed-note">
            <xsl:choose>
              <xsl:when test="$lang = 'zh-Hans'">这是一个 Atom 订阅源：将本页地址复制到您的订阅阅读器中，即可在每期发布后收到新的招标。</xsl:when>
              <xsl:when test="$lang = 'zh-Hant'">這是一個 Atom 訂閱源：將本頁地址複製到您的訂閱閱讀器中，即可在每期發佈後收到新的招標。</xsl:when>
              <xsl:otherwise>This is an Atom feed: copy this page's address into your feed reader to get the new tenders after each issue.</xsl:otherwise>
            </xsl:choose>
            <xsl:text> </xsl:text>
            <a href="{a:link[@rel='alternate']/@href}">
              <xsl:choose>
                <xsl:when test="$lang = 'zh-Hans'">在网站上查看这些招标</xsl:when>
                <xsl:when test="$lang = 'zh-Hant'">在網站上查看這些招標</xsl:when>
                <xsl:otherwise>See these tenders on the site</xsl:otherwise>
              </xsl:choose>
            </a>
          </p>
          <p class="count"><xsl:value-of select="a:subtitle"/></p>
          <ol class="results">
            <xsl:for-each select="a:entry">
              <li><article>
                <h2><a href="{a:link/@href}"><xsl:value-of select="a:title"/></a></h2>
                <p class="summary"><xsl:value-of select="a:summary"/></p>
              </article></li>
            </xsl:for-each>
          </ol>
        </main>
      </body>
    </html>
  </xsl:template>
</xsl:stylesheet>
